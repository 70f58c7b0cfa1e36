#!/usr/bin/env python3
"""Summarize the SASS of the instructions study's kernels.

Reads `cuobjdump --dump-sass <binary>` on stdin; for every kernel of the instructions study it
prints the opcodes of its main loop (the backward branch with the largest body) and of the whole
kernel, so the registry's `sass` column and the operation counts can be checked against what
ptxas emitted. Usage: cuobjdump --dump-sass build/ladder | sass_summary.py > sass.md
"""
import collections
import re
import shutil
import subprocess
import sys

FUNCTION = re.compile(r"^\s*Function : (\S+)")
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?);")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
BRANCH_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
# cuobjdump (without nvdisasm's labels) names the target by its address: BRA 0x400
BRANCH_ADDRESS = re.compile(r"\bBRA\S*\s+(?:\S+,\s*)?0x([0-9a-f]+)")


def demangle(names):
    if not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines()))


def opcode(text):
    tokens = text.split()
    if tokens and tokens[0].startswith("@"):
        tokens = tokens[1:]
    return tokens[0] if tokens else "?"


def main():
    functions = collections.OrderedDict()
    current = None
    for line in sys.stdin:
        m = FUNCTION.match(line)
        if m:
            current = m.group(1)
            functions[current] = {"code": [], "labels": {}, "at": {}}
            continue
        if current is None:
            continue
        m = LABEL.match(line)
        if m:
            functions[current]["labels"][m.group(1)] = len(functions[current]["code"])
            continue
        m = INSTRUCTION.match(line)
        if m:
            functions[current]["at"][int(m.group(1), 16)] = len(functions[current]["code"])
            functions[current]["code"].append(m.group(2))
    names = demangle(list(functions))
    print("# SASS of the instructions study's kernels\n")
    print("Main loop = the instructions between the target of the largest backward branch and the")
    print("branch. Opcodes with their modifiers; counts per loop trip and per kernel.\n")
    for mangled, f in functions.items():
        name = names.get(mangled, mangled)
        if "instructions" not in name:
            continue
        code = f["code"]
        loop = []
        for i, text in enumerate(code):
            if opcode(text).startswith("BRA"):
                t = BRANCH_TARGET.search(text)
                a = BRANCH_ADDRESS.search(text)
                start = None
                if t and t.group(1) in f["labels"]:
                    start = f["labels"][t.group(1)]
                elif a and int(a.group(1), 16) in f["at"]:
                    start = f["at"][int(a.group(1), 16)]
                if start is not None and start <= i and len(code[start:i + 1]) > len(loop):
                    loop = code[start:i + 1]
        loop_counts = collections.Counter(opcode(t) for t in loop)
        all_counts = collections.Counter(opcode(t) for t in code)
        print("## " + name.replace("ladder::lab::instructions::", "").replace("(anonymous namespace)::", "") + "\n")
        print("- instructions: %d; main loop: %d" % (len(code), len(loop)))
        print("- main loop: " + ", ".join("%s x%d" % kv for kv in loop_counts.most_common(12)))
        print("- kernel: " + ", ".join("%s x%d" % kv for kv in all_counts.most_common(12)) + "\n")
        if "--loops" in sys.argv and loop:
            print("```")
            for text in loop[:48]:
                print("  " + " ".join(text.split()))
            if len(loop) > 48:
                print("  ... %d more" % (len(loop) - 48))
            print("```\n")


if __name__ == "__main__":
    main()
