from baremobile.cli import main

raise SystemExit(main())
