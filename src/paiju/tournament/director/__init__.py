"""A tournament director for duplicate Dou Dizhu events (issue 48; ``docs/tournament.md``).

One module per concern: ``formats`` (the event's format, typed), ``store`` (the event's SQLite
file: schema, transactions, audit log), ``csvfile`` (the director's CSV files), ``players``
(the CSV import, late entries, withdrawals), ``pairing`` (tables of three as a minimum-cost
partition), ``movement`` (boards between tables, hands per player, who is compared with
whom), ``boards`` (boards with their checksum; the round's deals by DIH or at random),
``rounds`` (pairing, boards and release of a round, each one transaction), ``sheets`` (hand
records, pairing lists and score slips as printable HTML), ``pins`` (each table's PIN),
``results`` (a table's result checked against the board's cards and the scoring rules),
``seating`` (a round's tables as entry checks them), ``entry`` (the director's CSV, the
players' entry and confirmation at the table, corrections), ``adjustments`` (fouled boards,
adjusted scores, penalties), ``comparison`` (matchpoints or rank points), ``standings``
(totals, ranks, tie-breaks, per-board sheets, the totals Swiss pairs on), ``masterpoints``
(points by place from a table, the export) and ``publish`` (the standings as CSV and the
hall's page).

For the organiser's web pages: :func:`entry.submit_result` and :func:`entry.confirm_result`
(a player with the table's PIN), :func:`standings.compute_standings` (``Standings.as_dict``
for JSON) and :func:`publish.hall_page`; every refusal is a :class:`results.EntryError`
naming the field at fault.
"""
