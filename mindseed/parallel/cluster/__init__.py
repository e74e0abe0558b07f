"""mindspore.parallel.cluster: the `msrun` launcher (`run`)."""
