"""The session daemon: one long-lived process that holds devices for every front door.

A shell agent's ``baremobile tap 3``, an MCP server started with ``--daemon`` and an IDE
plugin all talk to one daemon over a Unix socket (newline-delimited JSON, AutoMobile's
envelope; see ``docs/daemon.md``). It holds the device connections, each session's last
snapshot (so refs survive between commands) and a pool of devices handed out to sessions.

* :mod:`~baremobile.daemon.protocol` — the wire format, sans I/O;
* :mod:`~baremobile.daemon.client` — what the CLI runs (light: no device stack);
* :mod:`~baremobile.daemon.server` — the socket server, its methods, timeouts;
* :mod:`~baremobile.daemon.hub` — the state behind the methods: pool, pages, sessions;
* :mod:`~baremobile.daemon.pool`, :mod:`~baremobile.daemon.sessions` — devices and who holds
  them; a session as ``baremobile.tools.call`` sees it;
* :mod:`~baremobile.daemon.paths` — the socket and the files beside it;
* :mod:`~baremobile.daemon.service` — the daemon process (options, logging);
* :mod:`~baremobile.daemon.mcp_proxy` — ``baremobile mcp --daemon``.

Importing this package imports nothing else, so the CLI's client path stays light.
"""
