"""Kernel functions by family; each is a torch op or a small adapter around one."""
