"""The rules core: pure, deterministic game logic with no I/O, no asyncio and no clock.

`tiles` and `hand` are shared by both games; `guiyang` is 贵阳捉鸡 (spec/guiyang.md);
`replay` runs fixtures and stored hands.
"""
