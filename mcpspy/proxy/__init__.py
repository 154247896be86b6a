"""The proxy: the only trio code, and the only I/O of the recording side."""
