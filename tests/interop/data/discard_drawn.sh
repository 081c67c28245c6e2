#!/bin/sh
# A paiju mahjong protocol bot in POSIX shell (docs/mahjong-protocol.md): it always discards
# the tile it just drew (the dealer's first turn: its last dealt tile), wins nothing and passes
# every claim and every robbing chance.
drawn=""
while IFS= read -r line; do
    set -- $line
    case "$1" in
        /start) echo "ready discard-drawn.sh" ;;
        /initCard)
            shift
            for t in "$@"; do
                case "$t" in *f) ;; *) drawn="$t" ;; esac
            done ;;
        /mo)
            case "$2" in *f) ;; *) drawn="$2" ;; esac ;;
        /ask)
            if [ "$2" = throw ]; then echo "throw $drawn"; else echo "pass"; fi ;;
        /quit) exit 0 ;;
    esac
done
