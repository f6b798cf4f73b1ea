"""Playing a tournament's fixtures: in this process, in worker processes or on a Dask
cluster, with remote entrants seated through a server hall; results go to the store as
they come."""
