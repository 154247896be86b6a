"""Views of a finished capture: text, JSON and Markdown reports, and the rules catalogue."""
