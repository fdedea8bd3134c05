"""Alexandros on Discord: the bot (discord.py 2.x) that wires the engine, the renderer and the store.

Discord-free: ``service`` (load, apply, save, decide what to announce), ``words`` (all wording, refusal
codes to sentences), ``choices`` (what may be chosen now, from the engine), ``texts`` (public message
texts), ``pictures`` (the one door to the renderer). Discord adapters: ``controller`` (what each command and
button does), ``cog`` (``/alexandros`` and ``/alexandros-admin``), ``components`` (restart-proof buttons
and menus), ``client`` (``make_bot``). Tools: ``console`` (play locally), ``offline`` (the offline Discord
the console and the tests run on), ``__main__`` (``python -m bot``). Hosting: ``config``, ``schedule``,
``backups``, ``health``.
"""
