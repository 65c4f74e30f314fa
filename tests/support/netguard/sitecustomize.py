"""The network guard for the CLI subprocesses the tests start (``tests.support.cli.run_cli`` puts this folder
first on PYTHONPATH, so every child Python imports it at start-up): a connection to any host but loopback fails,
as it does in the test process itself (``no_network`` in tests/conftest.py)."""

import socket

_real_connect = socket.socket.connect
_LOOPBACK = ("127.", "::1", "localhost")


def _guarded_connect(self, address):  # type: ignore[no-untyped-def]
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
        raise RuntimeError(f"test subprocess tried to reach the network ({host}); tests only talk to 127.0.0.1")
    return _real_connect(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
