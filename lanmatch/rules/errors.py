"""Errors shared by the rules engines."""


class IllegalAction(Exception):
    """An action the rules do not allow now.

    `reason` is a sentence a player understands; the game state is unchanged.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason
