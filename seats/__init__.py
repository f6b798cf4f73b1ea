"""The seat layer: how a player, whatever it is, takes part in a match.

``Seat`` is the one interface a match is played through (a bot object, a
person or bot over TCP, a program on stdio); ``MatchCore`` is the referee, a
state machine given the time that decides deadlines, refusals, faults and
forfeits; ``MatchDriver`` plays a match through seats by running it;
``ProgramSeat`` hosts an external program. It knows the engine and the
protocol, and nothing of bots, servers, clients or tournaments.
"""
