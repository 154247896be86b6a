"""What a server says about itself, and how that changed: ``mcpspy diff``.

``surface`` reads a capture's tools, prompts, resources, templates, server
info and capabilities; ``compare`` and ``schema`` say what drifted between two
surfaces (with the JSON tools of ``mcpspy.jsonutil``). All pure but ``command``.
"""
