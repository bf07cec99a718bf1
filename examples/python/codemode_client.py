"""A client of the codemode executor server, in Python.

Written from docs/protocol.md alone, to show that a client needs nothing of this project's
JavaScript: it opens a WebSocket, says hello, sends an execute request naming its providers, answers
each dispatch (a tool call of the running program) with a function of its own, and reads the result
envelope. It needs Python 3.9 or newer and the websockets package (Debian: python3-websockets).

    CODEMODE_EXECUTOR_TOKEN=... python3 codemode_client.py ws://127.0.0.1:8790/

runs the example program at the bottom against that server and prints its envelope as JSON.
"""

import asyncio
import base64
import inspect
import itertools
import json
import math
import os
import sys

import websockets

# The oldest version of the protocol: everything this client uses is in it, and the server answers a
# hello of version 1 with version 1 (docs/protocol.md, "Versions").
PROTOCOL = 1
# One message may be at most 32 MiB of UTF-8 (PAYLOAD_LIMIT); the server sends nothing larger.
PAYLOAD_LIMIT = 32 * 1024 * 1024


class ExecutorError(Exception):
    """A fault the server answered instead of a result: its code and its message."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code


def to_codec(value):
    """A Python value as the dispatch codec's JSON value: bytes become a tagged base64 object, and
    a dict that owns the key $binary or $object is escaped into its list of entries."""
    if isinstance(value, (bytes, bytearray)):
        return {"$binary": "Uint8Array", "base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        if "$binary" in value or "$object" in value:
            return {"$object": [[key, to_codec(item)] for key, item in value.items()]}
        return {key: to_codec(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_codec(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None  # as JSON.stringify writes NaN and the infinities
    return value


def from_codec(value):
    """The codec's JSON value as a Python value: every binary kind comes back as bytes."""
    if isinstance(value, dict):
        if "$binary" in value:
            return base64.b64decode(value["base64"])
        if "$object" in value:
            return {key: from_codec(item) for key, item in value["$object"]}
        return {key: from_codec(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_codec(item) for item in value]
    return value


def codec_text(value):
    return json.dumps(to_codec(value), allow_nan=False, separators=(",", ":"))


class ExecutorClient:
    """One connection to an executor server; executions run one at a time."""

    def __init__(self, socket):
        self._socket = socket
        self._ids = itertools.count(1)

    @classmethod
    async def connect(cls, url, token):
        # The token travels in the hello, which every WebSocket library can send; a client that can
        # set headers may send `Authorization: Bearer TOKEN` in the upgrade instead.
        socket = await websockets.connect(url, max_size=PAYLOAD_LIMIT)
        client = cls(socket)
        await client._send({"type": "hello", "protocol": PROTOCOL, "token": token})
        answer = await client._receive()
        if answer["type"] == "fault":
            await socket.close()
            raise ExecutorError(answer["code"], answer["message"])
        if answer["type"] != "hello":
            await socket.close()
            raise ExecutorError("BAD_REQUEST", f"the server opened with a {answer['type']} message")
        return client

    async def close(self):
        await self._socket.close()

    async def execute(self, code, tools, timeout=None):
        """Runs `code` with `tools` ({namespace: {name: function}}, each function plain or async)
        and returns the result envelope as a dict. It never raises for what the program did: an
        error it met is the envelope's `error`."""
        conversation = f"py{next(self._ids)}"
        request = {"code": code, "providers": [{"name": name} for name in tools]}
        if timeout is not None:
            request["timeout"] = timeout
        await self._send({"type": "execute", "id": conversation, "request": request})
        while True:
            message = await self._receive()
            if message.get("id") != conversation:
                continue
            if message["type"] == "dispatch":
                frame = await self._serve(tools, message)
                await self._send({"type": "dispatchReply", "id": conversation, "call": message["call"], "frame": frame})
            elif message["type"] == "result":
                return message["envelope"]
            elif message["type"] == "fault":
                raise ExecutorError(message["code"], message["message"])

    @staticmethod
    async def _serve(tools, message):
        """A tool call answered as a `returned` frame holding the result envelope's codec JSON:
        {"result": ...} for a value, {"error": ...} for a function that raised, and the
        tool-not-found envelope for a name no provider serves (docs/protocol.md, "Frames")."""
        provider, name = message["provider"], message["tool"]
        function = tools.get(provider, {}).get(name)
        if function is None:
            envelope = {
                "error": f"Tool {provider}.{name} does not exist: no provider serves it.",
                "errorKind": "tool-not-found",
            }
            return ["returned", json.dumps(envelope)]
        try:
            args = from_codec(json.loads(message["args"]))
            value = function(*args)
            if inspect.isawaitable(value):
                value = await value
            return ["returned", codec_text({"result": value})]
        except Exception as error:  # the program meets the tool's failure as its own error
            return ["returned", json.dumps({"error": str(error) or type(error).__name__})]

    async def _send(self, message):
        await self._socket.send(json.dumps(message, separators=(",", ":")))

    async def _receive(self):
        return from_codec(json.loads(await self._socket.recv()))


# The example: a program that calls two Python tools, one returning bytes and one that raises.
PROGRAM = """async () => {
  const order = await kitchen.order('soup', 2);
  const receipt = await kitchen.receipt(order.id);
  let refused;
  try {
    await kitchen.order('moon cheese', 1);
  } catch (error) {
    refused = error.message;
  }
  console.log('ordered', order.dish);
  return { order, receiptBytes: Array.from(receipt), refused };
}"""


async def main(url):
    menu = {"soup": 7.5, "bread": 3}

    def order(dish, count):
        if dish not in menu:
            raise ValueError(f"{dish} is not on the menu")
        return {"id": 41, "dish": dish, "total": menu[dish] * count}

    async def receipt(order_id):
        return bytes([order_id, 0, 255])

    client = await ExecutorClient.connect(url, os.environ["CODEMODE_EXECUTOR_TOKEN"])
    try:
        envelope = await client.execute(PROGRAM, {"kitchen": {"order": order, "receipt": receipt}})
    finally:
        await client.close()
    print(json.dumps(envelope, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
