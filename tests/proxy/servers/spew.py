"""A test server: copies its stdin to a file while writing a file to stdout in given chunks.

spew.py STDIN_COPY STDOUT_SOURCE CHUNK_SIZES...
"""

import os
import sys
import threading


def copy_stdin(path: str) -> None:
    with open(path, "wb") as out:
        while chunk := os.read(0, 65536):
            out.write(chunk)


def main() -> None:
    stdin_copy, source, *sizes = sys.argv[1:]
    reader = threading.Thread(target=copy_stdin, args=(stdin_copy,))
    reader.start()
    with open(source, "rb") as f:
        data = f.read()
    cuts = [int(s) for s in sizes] or [len(data)]
    pos = 0
    i = 0
    while pos < len(data):
        size = cuts[i % len(cuts)]
        view = memoryview(data)[pos : pos + size]
        while view:
            view = view[os.write(1, view) :]
        pos += size
        i += 1
    reader.join()


main()
