"""The Textual views: `mcpspy watch` (live) and `mcpspy view` (a finished capture)."""
