"""uschess-ratings: the US Chess rating algorithm, rule by dated rule."""
