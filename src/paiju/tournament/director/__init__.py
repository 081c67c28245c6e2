"""A tournament director for duplicate Dou Dizhu events (issue 48; ``docs/tournament.md``).

One module per concern: ``formats`` (the event's format, typed), ``store`` (the event's SQLite
file: schema, transactions, audit log), ``players`` (the CSV import, late entries,
withdrawals), ``pairing`` (tables of three as a minimum-cost partition), ``movement`` (boards
between tables, hands per player, who is compared with whom), ``boards`` (boards with their
checksum; the round's deals by DIH or at random), ``comparison`` (matchpoints or rank points,
the totals Swiss pairs on), ``rounds`` (pairing, boards and release of a round, each one
transaction) and ``sheets`` (hand records, pairing lists and score slips as printable HTML).
"""
