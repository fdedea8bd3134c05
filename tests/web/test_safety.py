"""The web face on the internet (issue 30): a slow-loris client is cut and does not hold the server, an
address gets only so many connections, and 10,000 bad requests leave it answering, with nothing left open."""

from __future__ import annotations

import asyncio
import random
import time

from bot.web import WebFace
from storage import open_database


async def _face(tmp_path, **limits) -> WebFace:
    store = await open_database(str(tmp_path / "w.db"))
    web = WebFace(store, port=0, **limits)
    await web.start()
    return web


async def _stop(web: WebFace) -> None:
    await web.close()
    await web.store.close()


async def _get(port: int, path: str = "/healthz") -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        async with asyncio.timeout(5):
            data = await reader.read()
    finally:
        writer.close()
    return int(data.split(b" ", 2)[1]), data


async def _closed(reader: asyncio.StreamReader, within: float) -> bool:
    try:
        async with asyncio.timeout(within):
            while await reader.read(1024):
                pass
        return True
    except (TimeoutError, ConnectionError):
        return False


async def test_a_slow_loris_is_cut_and_never_holds_the_server(tmp_path):
    web = await _face(tmp_path, header_timeout=0.5, per_address=64)
    try:
        slow = []
        for _ in range(30):
            reader, writer = await asyncio.open_connection("127.0.0.1", web.port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            slow.append((reader, writer))

        async def trickle() -> None:
            for k in range(40):  # a header byte now and then, never the end of the headers
                for _, writer in slow:
                    if not writer.is_closing():
                        writer.write(b"X-%d: y\r\n" % k)
                await asyncio.sleep(0.1)

        trickling = asyncio.ensure_future(trickle())
        started = time.monotonic()
        status, _ = await _get(web.port)  # answered while the attack goes on
        assert status == 200 and time.monotonic() - started < 1.0
        # Cut after 0.5 s of no whole request; 10 s of room for a machine kept busy (3 s left 25 of 30 open
        # with two CPU burners and the suite beside it: the timers fired late, not never).
        cut = await asyncio.gather(*(_closed(r, 10.0) for r, _ in slow))
        assert all(cut), f"{cut.count(False)} slow connections still open"
        trickling.cancel()
        for _, writer in slow:
            writer.close()
        assert (await _get(web.port))[0] == 200
    finally:
        await _stop(web)


async def test_an_address_gets_so_many_connections(tmp_path):
    web = await _face(tmp_path, per_address=4, header_timeout=5.0)
    try:
        held = [await asyncio.open_connection("127.0.0.1", web.port) for _ in range(4)]
        reader, writer = await asyncio.open_connection("127.0.0.1", web.port)
        assert await _closed(reader, 2.0)  # the fifth is cut at once
        writer.close()
        for _, w in held:
            w.close()
        await asyncio.sleep(0.2)
        assert (await _get(web.port))[0] == 200  # the address's room came back
    finally:
        await _stop(web)


BAD = [
    b"\x00\x01\x02\x03garbage\r\n\r\n",
    b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /static/..%2f..%2fbot%2fconfig.py HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /g/1-00000000000000000000000000000000 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /g/" + b"9" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"GET /g/1-zz/live?steps=-5 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /g/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"BREW /pot HTCPCP/1.0\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
]


async def test_ten_thousand_bad_requests_leave_it_answering(tmp_path):
    web = await _face(tmp_path, per_address=10_000, header_timeout=2.0)
    answered: dict[int, int] = {}
    rng = random.Random(30)

    async def one(k: int) -> None:
        request = BAD[k % len(BAD)] if k % 7 else bytes(rng.getrandbits(8) for _ in range(64))
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", web.port)
        except OSError:
            answered[-1] = answered.get(-1, 0) + 1
            return
        try:
            writer.write(request)
            async with asyncio.timeout(10):
                head = await reader.read(64)
            code = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
            answered[code] = answered.get(code, 0) + 1
        except (ConnectionError, TimeoutError, ValueError, IndexError):
            answered[0] = answered.get(0, 0) + 1
        finally:
            writer.close()

    try:
        started = time.monotonic()
        for start in range(0, 10_000, 100):
            await asyncio.gather(*(one(k) for k in range(start, start + 100)))
        took = time.monotonic() - started
        assert sum(answered.values()) == 10_000
        assert answered.get(200, 0) == 0, answered  # none of them was a good request
        assert answered.get(500, 0) == 0, answered  # and none broke a handler
        assert answered.get(404, 0) > 1000 and answered.get(405, 0) > 1000, answered
        status, body = await _get(web.port)
        assert status == 200 and b"healthy" in body
        async with asyncio.timeout(5):
            while web._conns:  # every connection is closed again
                await asyncio.sleep(0.05)
        assert not web._peers
        print(f"10,000 bad requests in {took:.1f} s: {dict(sorted(answered.items()))}")
    finally:
        await _stop(web)
