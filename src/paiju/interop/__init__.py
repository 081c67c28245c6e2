"""paiju speaking other systems' interfaces: Botzone Dou Dizhu bots (docs/botzone.md), paiju's
mahjong line protocol for programs (``paiju.interop.mahjong``, docs/mahjong-protocol.md), and
PettingZoo / Gymnasium environments of every game (docs/interop.md)."""
