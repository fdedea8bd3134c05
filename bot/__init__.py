"""Alexandros on Discord: the bot (discord.py 2.x) that wires the engine, the renderer and the store.

Modules: ``service`` (Discord-free game service), ``words`` (all wording), ``choices`` (what may be chosen,
from the engine), ``texts`` (public message texts), ``pictures`` (the renderer adapter), ``controller``,
``cog`` and ``components`` (the Discord adapters), ``client`` (``make_bot``), ``console`` and ``__main__``.
"""
