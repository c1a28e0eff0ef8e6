"""``python -m baremobile.daemon``: run the session daemon in the foreground."""

from baremobile.daemon.service import main

raise SystemExit(main())
