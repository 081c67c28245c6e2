"""paiju speaking other systems' interfaces: Botzone Dou Dizhu bots (docs/botzone.md), and
PettingZoo / Gymnasium environments of every game (docs/interop.md)."""
