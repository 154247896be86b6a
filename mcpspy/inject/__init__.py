"""``--inject``: framing and pairing faults made on purpose, to test a client (or a server).

``catalogue`` (the faults, as data), ``spec`` (the SPEC grammar), ``transforms``
and ``engine`` (the pure injector the proxy's injecting pump feeds),
``record`` (the capture's ``injected`` record), ``scenarios`` and ``reactions``
(how the peer took each injection, from the records). ``mcpspy faults`` is
``report/faults.py``; the proxy's hook is ``proxy/inject_pump.py``.
"""
