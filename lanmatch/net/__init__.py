"""The network edge (trio): the host node, peer connections, discovery, bot nodes.

    from lanmatch.net.host import Host          # rooms, one task per room
    from lanmatch.net.client import Client, BotNode
    from lanmatch.net.discovery import Advertiser, browse

Everything here is I/O around the pure layers: `lanmatch.protocol` (frames and
messages) and `lanmatch.table` (rooms, the referee, clocks).
"""
