/**
 * The program of an interact `code` request in Python (language: python), run by `python3 -I -c`
 * as code-child.ts is run by Node: the same line of JSON each way over file descriptor 3, the same
 * page calls, with the names of Playwright's Python API. A string here rather than a file of its
 * own, so that it ships in the compiled tree with the rest.
 */
export const PYTHON_CHILD = String.raw`"""The process an interact "code" request in Python runs in: the twin of code-child.ts.

The caller's program gets "page", a stand-in whose every call goes to webwatch over file
descriptor 3 (a line of JSON each way) and runs there on the real page, with the names of
Playwright's Python API (await page.locator("h1").text_content()): snake_case becomes the
camelCase of the calls webwatch allows, keyword arguments its options object, and the Python
properties url, main_frame, frames and viewport_size are read as they are in Python, without a
call. print is its stdout. An expression is its own result; a program of statements gives what
it returns. It imports nothing but Python's standard library.
"""

import ast
import asyncio
import json
import os
import socket
import sys

channel = socket.socket(fileno=3)
reader = channel.makefile("r", encoding="utf-8")
writer = channel.makefile("w", encoding="utf-8")
next_id = 0

# Properties in Python's Playwright that are methods in its JavaScript one.
PROPERTIES = {"url", "main_frame", "frames", "viewport_size"}


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def send(message):
    writer.write(json.dumps(message) + "\n")
    writer.flush()


async def call(steps):
    global next_id
    next_id += 1
    send({"id": next_id, "steps": steps})
    line = await asyncio.get_running_loop().run_in_executor(None, reader.readline)
    answer = json.loads(line)
    if not answer.get("ok"):
        raise RuntimeError(answer.get("error"))
    return answer.get("value")


class Chain:
    """page, or a chain from it: nothing is sent until it is awaited."""

    def __init__(self, steps):
        self._steps = steps

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        steps = self._steps + [{"get": camel(name)}]
        return Chain(steps + [{"call": []}]) if name in PROPERTIES else Chain(steps)

    def __call__(self, *args, **options):
        arguments = list(args) + ([{camel(key): value for key, value in options.items()}] if options else [])
        return Chain(self._steps + [{"call": arguments}])

    def __await__(self):
        return call(self._steps).__await__()


async def settled(value, depth=0):
    """A value with the chains in it awaited, as code-child.ts settles its own."""
    if isinstance(value, Chain):
        return await settled(await value, depth)
    if depth > 4:
        return value
    if isinstance(value, (list, tuple)):
        return [await settled(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: await settled(item, depth + 1) for key, item in value.items()}
    return value


def program_of(code):
    tree = ast.parse(code, mode="exec")
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        tree.body[-1] = ast.Return(value=tree.body[-1].value)
    fields = {
        "name": "__program",
        "args": ast.arguments(posonlyargs=[], args=[ast.arg(arg="page")], kwonlyargs=[], kw_defaults=[], defaults=[]),
        "body": tree.body or [ast.Pass()],
        "decorator_list": [],
        "type_params": [],
    }
    function = ast.AsyncFunctionDef(**{key: value for key, value in fields.items() if key in ast.AsyncFunctionDef._fields})
    module = ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[]))
    scope = {}
    exec(compile(module, "<interact>", "exec"), scope)
    return scope["__program"]


def shown(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, indent=2)


async def main():
    message = json.loads(reader.readline())
    send({"type": "started"})  # the timeout counts from here, not from the process's start
    try:
        program = program_of(message.get("code", ""))
        value = await settled(await program(Chain([])))
        sys.stdout.flush()
        send({"type": "result", "result": shown(value)})
    except Exception as error:  # the program's own error, reported as it is
        sys.stdout.flush()
        # The error, not its traceback's frames: they would name this server's files.
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        send({"type": "result", "error": str(error)})
        sys.stderr.flush()
        os._exit(1)


asyncio.run(main())
`;
