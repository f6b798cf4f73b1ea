"""Headless tournaments between bots: ``leastscore tournament`` (see TOURNAMENTS.md).

``schedule`` says who plays whom, in which seats, with which cards; ``entrants``
where an entrant's moves come from; ``config`` holds a tournament's definition;
``lineup`` makes the seats in one process; ``play`` runs one fixture through the
referee; ``pool`` and ``runner`` play the fixtures; ``store`` keeps the --out
directory; ``stats`` turns results into standings; ``report`` shows them;
``remote`` is the server side of remote entrants.
"""
