"""What a server says about itself, and how that changed: ``mcpspy diff``.

``surface`` reads a capture's tools, prompts, resources, templates, server
info and capabilities; ``compare`` and ``schema`` say what drifted between two
surfaces; ``jsonpath`` and ``structural`` are the JSON tools that ``mcpspy
replay`` shares. All pure but ``command``.
"""
