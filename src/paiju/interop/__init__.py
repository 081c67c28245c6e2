"""paiju speaking other systems' protocols: Botzone Dou Dizhu bots (docs/botzone.md)."""
