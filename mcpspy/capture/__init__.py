"""The capture file: the one contract between the proxy and the views."""
