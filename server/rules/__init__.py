"""The rules core: pure, deterministic game logic with no I/O, no asyncio and no clock.

`tiles` and `hand` are shared by both games; `types` holds the typed values (`Action`,
`Event`, `Payment`, `Settlement`, `View`) and `errors` the one `IllegalAction`; `game` is the
interface every game implements and `registry` finds a game by name; `guiyang` is 贵阳捉鸡
(spec/guiyang.md); `replay` is the one replay of fixtures and stored hands. Nothing here
imports anything of the server outside this package.
"""
