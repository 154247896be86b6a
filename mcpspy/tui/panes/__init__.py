"""The inspector's panes, one widget a file: each takes data from the app and posts what happened."""
