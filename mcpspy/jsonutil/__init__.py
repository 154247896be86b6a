"""JSON tools every layer may use, pure and free of mcpspy's other packages.

``paths`` names a place in a value (and the ``--ignore`` patterns), ``structural``
diffs and compares values, ``quote`` puts an untrusted value in a sentence
without ever raising, ``span`` finds a member's bytes in raw JSON.
"""
