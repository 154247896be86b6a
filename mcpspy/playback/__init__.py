"""A capture as a fixture: ``mcpspy mock`` answers as the recorded server did,
``mcpspy replay`` plays the recorded client against a server and diffs the replies.

Pure parts: ``message_bytes`` (ids in raw lines), ``matching`` (incoming
request to recorded one), ``script`` (a capture as what to say when),
``mock`` (the mock as a sans-IO object), ``plan`` and ``compare`` (replay).
I/O only in the ``*_command`` modules.
"""
