"""Small descriptors shared by classes that expose private attributes read-only."""
import operator


def readonly(attr, doc=None):
    """A read-only property returning ``self.<attr>`` (dotted paths allowed): ``name = readonly("_name")``."""
    return property(operator.attrgetter(attr), doc=doc)
