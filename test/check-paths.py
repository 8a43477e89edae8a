#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every repository path that a doc or a comment names exists.

Reads README.md, doc/*.md, the man pages doc/*.[0-9], debian/*, and the comments
of the C files, the shell scripts and the Makefile; takes each word that begins with
a top-level folder of the tree (src/, test/, doc/, ...) or names a top-level file
(module-setup.sh, Makefile), and prints "FILE:LINE: PATH" for each that names
nothing in the tree. A glob must match something; a word in capitals (NAME, CASE)
or "..." stands for any name; paths made at build or run time (build/, test/out/)
are not the repository's and are not checked. Run from the tree's top; exits 1 when
it printed something.
"""
import glob
import os
import re
import sys

FOLDERS = ("lib", "src", "test", "doc", "scripts", "bench", "hook", "image", "config",
           "debian", "systemd", "initramfs-tools", ".ci")
FILES = ("module-setup.sh", "Makefile", "README.md")
MADE = ("test/out",)  # made by the suites, not in the repository

# a word that begins with a top-level folder and goes on with the characters of a
# path or a glob ([ch] and {a,b} too), or a top-level file's name
WORD = re.compile(r"(?<![\w./$@~-])((?:%s)/(?:[\w.*?{},/+-]|\[[\w-]*\])*|(?:%s)(?![\w.-]))"
                  % ("|".join(map(re.escape, FOLDERS)), "|".join(map(re.escape, FILES))))
PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9_]*(?![a-z0-9])")
# a C string, character, comment or line comment: the comments are read, the rest not
C_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"' r"|'(?:\\.|[^'\\\n])*'" r"|/\*.*?\*/|//[^\n]*",
                     re.S)


def c_comments(text):
    """(line, text) of each comment of a C file, strings left out"""
    for m in C_TOKEN.finditer(text):
        if m.group(0)[0] == "/":
            yield text.count("\n", 0, m.start()) + 1, m.group(0)


def hash_comments(text):
    """(line, text) of each '#' comment of a shell script or a Makefile: from a '#'
    at the start of a word and outside quotes"""
    for n, line in enumerate(text.split("\n"), 1):
        quote = None
        for i, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t;"):
                if not line.startswith("#!"):
                    yield n, line[i:]
                break


def whole(text):
    """(line, text) of every line of a doc; a man page's escapes undone"""
    for n, line in enumerate(text.split("\n"), 1):
        yield n, line.replace("\\-", "-").replace("\\&", "").replace("\\fB", "") \
            .replace("\\fI", "").replace("\\fR", "").replace("\\fP", "")


def braces(path):
    """a{b,c}d as abd and acd"""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",")
            for p in braces(path[:m.start()] + alt + path[m.end():])]


def clean(path):
    """a path without the punctuation of the sentence it ends"""
    return path.rstrip(".,:;)'`")


def exists(path):
    path = clean(path)
    if path.startswith(MADE) or path in FOLDERS:
        return True
    parts = ["*" if p == "..." else PLACEHOLDER.sub("*", p) for p in path.split("/")]
    path = "/".join(parts)
    return any(glob.glob(p) or os.path.exists(p) for p in braces(path))


def sources():
    """(file, reader) for every file read"""
    docs = ["README.md"] + sorted(glob.glob("doc/*.md") + glob.glob("doc/*.[0-9]"))
    docs += sorted(f for f in glob.glob("debian/*") if os.path.isfile(f))
    for f in docs:
        yield f, whole
    cs = glob.glob("lib/*.[ch]") + glob.glob("src/**/*.[ch]", recursive=True)
    for top, dirs, files in os.walk("test"):
        # what the suites made is not walked: it holds whole Debian roots
        dirs[:] = [d for d in dirs if not os.path.join(top, d).startswith(MADE)]
        cs += [os.path.join(top, f) for f in files if f.endswith((".c", ".h"))]
    cs = sorted(cs)
    for f in cs:
        yield f, c_comments
    shell = ["Makefile", "module-setup.sh", ".ci/run"]
    for pattern in ("test/*.sh", "test/*/*.sh", "bench/*.sh", "scripts/*.sh",
                    "image/*.sh", "hook/*.sh", "initramfs-tools/hooks/*",
                    "initramfs-tools/scripts/*/*"):
        shell += sorted(glob.glob(pattern))
    for f in shell:
        if os.path.isfile(f) and not f.startswith("test/out/"):
            yield f, hash_comments


def main():
    bad = 0
    for f, reader in sources():
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for n, chunk in reader(text):
            for m in WORD.finditer(chunk):
                if not exists(m.group(1)):
                    line = n + chunk.count("\n", 0, m.start())
                    print("%s:%d: %s" % (f, line, clean(m.group(1))))
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
