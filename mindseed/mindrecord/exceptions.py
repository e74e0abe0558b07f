"""MindRecord's exception classes (`mindspore.mindrecord.common.exceptions`), printed as ``[Name]: message``."""

__all__ = ["MindRecordException", "ParamValueError", "ParamTypeError", "ParamMissError", "PathNotExistsError",
           "MRMOpenError", "MRMOpenForAppendError", "MRMInvalidPageSizeError", "MRMInvalidHeaderSizeError",
           "MRMSetHeaderError", "MRMWriteDatasetError", "MRMCommitError", "MRMAddSchemaError", "MRMAddIndexError",
           "MRMBuildSchemaError", "MRMGetMetaError", "MRMInvalidSchemaError", "MRMValidateDataError",
           "MRMDefineIndexError", "MRMDefineBlobError", "MRMUnsupportedSchemaError", "MRMDefineCategoryError"]


class MindRecordException(Exception):
    """Base of MindRecord errors."""

    _base = "Unknown Error."

    def __init__(self, detail=None):
        self.error_msg = detail if detail is not None else self._base
        super().__init__(self.error_msg)

    def __str__(self):
        return f"[{type(self).__name__}]: {self.error_msg}"


def _kind(name, base):
    return type(name, (MindRecordException,), {"_base": base, "__doc__": f"MindRecord error: {base}"})


MRMOpenError = _kind("MRMOpenError", "MindRecord could not open.")
MRMOpenForAppendError = _kind("MRMOpenForAppendError", "MindRecord could not open for append.")
MRMInvalidPageSizeError = _kind("MRMInvalidPageSizeError", "Failed to set page size.")
MRMInvalidHeaderSizeError = _kind("MRMInvalidHeaderSizeError", "Failed to set header size.")
MRMSetHeaderError = _kind("MRMSetHeaderError", "Failed to set header.")
MRMWriteDatasetError = _kind("MRMWriteDatasetError", "Failed to write dataset.")
MRMCommitError = _kind("MRMCommitError", "Failed to commit.")
MRMAddSchemaError = _kind("MRMAddSchemaError", "Failed to add schema.")
MRMAddIndexError = _kind("MRMAddIndexError", "Failed to add index field.")
MRMBuildSchemaError = _kind("MRMBuildSchemaError", "Failed to build schema.")
MRMGetMetaError = _kind("MRMGetMetaError", "Failed to get meta info.")
MRMInvalidSchemaError = _kind("MRMInvalidSchemaError", "Schema is error.")
MRMValidateDataError = _kind("MRMValidateDataError", "Raw data is valid.")
MRMDefineIndexError = _kind("MRMDefineIndexError", "Index field is error.")
MRMDefineBlobError = _kind("MRMDefineBlobError", "Blob field is error.")
MRMUnsupportedSchemaError = _kind("MRMUnsupportedSchemaError", "Schema is not supported.")


class MRMDefineCategoryError(MindRecordException):
    """A category field (MindPage) is not one of the candidate fields."""

    def __init__(self, error_detail):
        super().__init__(f"Failed to define category field. Detail: {error_detail}")


PathNotExistsError = _kind("PathNotExistsError", "Path does not exist.")


class ParamValueError(MindRecordException):
    """A parameter has an invalid value."""

    def __init__(self, error_detail):
        super().__init__(f"Invalid parameter value. {error_detail}")


class ParamTypeError(MindRecordException):
    """A parameter has the wrong type."""

    def __init__(self, param_name, expected_type):
        super().__init__(f"Invalid parameter type. '{param_name}' expect {expected_type} type.")


class ParamMissError(MindRecordException):
    """A required parameter is missing."""

    def __init__(self, param_name):
        super().__init__(f"Param missing. '{param_name}' is required.")
