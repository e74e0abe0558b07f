"""MindSpore's `ops._utils`: helpers of the operator definitions (`arg_dtype_cast`)."""
