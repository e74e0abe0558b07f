"""Encryption of MindRecord files (`mindspore.mindrecord.config`): set_enc_key, set_enc_mode, set_dec_mode.

With a key set, FileWriter.commit and Dataset.save encrypt each shard file and its .db index in place, and
FileReader, MindPage and MindDataset decrypt them (into a private temporary folder, removed when the reader is
released). The file layout is MindSpore's, so either side reads what the other wrote:

    encrypted file = block* | int32 0 (big-endian) | mode (7 bytes, "AES-GCM" or "UDF-ENC") | b"ENCRYPT"
    block          = int32 length (big-endian) | piece of at most 64 MB, encrypted

and an encrypted piece (MindSpore's C++ `Encrypt`) is

    uint32 0x7F3A5ED8 (LE) | GCM tag (16) | int32 n (LE) | int32 16 (LE) | IV (16; AES-GCM uses its first 12 bytes)
    | int32 len (LE) | ciphertext (len)          with n = 4 + 16 + 4 + len.

A callable mode `f(in_file, size, out_file, key)` replaces the whole block loop (as in MindSpore).
AES-GCM is done by the `cryptography` package, imported on first use.
"""
import os
import shutil
import stat
import struct
import tempfile

__all__ = ["set_enc_key", "set_enc_mode", "set_dec_mode"]

ENC_KEY = None
ENC_MODE = "AES-GCM"
DEC_MODE = None

ENCRYPT_END_FLAG = b"ENCRYPT"
_MODES = ("AES-GCM",)
_PIECE = 64 * 1024 * 1024
_GCM_MAGIC = 0x7F3A5ED8
_MIN_FILE_SIZE = 1 << 14


def set_enc_key(enc_key):
    """Set the key (str of 16, 24 or 32 characters) that encrypts the MindRecord files written from now on and
    decrypts those read; ``None`` turns encryption off.

    Raises:
        ValueError: `enc_key` is not a str or has another length.
    """
    global ENC_KEY
    if enc_key is None:
        ENC_KEY = None
        return
    if not isinstance(enc_key, str):
        raise ValueError("The input enc_key is not str.")
    if len(enc_key) not in (16, 24, 32):
        raise ValueError("The length of input enc_key is not 16, 24, 32.")
    ENC_KEY = enc_key


def _mode(value, name):
    """`value` if it is a callable or a supported mode name (ValueError naming `name` otherwise)."""
    if callable(value):
        return value
    if not isinstance(value, str):
        raise ValueError(f"The input {name} is not str.")
    if value not in _MODES:
        raise ValueError(f"The input {name} is invalid.")
    return value


def set_enc_mode(enc_mode="AES-GCM"):
    """Set the encryption mode: ``"AES-GCM"`` or a function ``f(in_file, file_size, out_file, key)``.

    Raises:
        ValueError: `enc_mode` is neither a supported mode nor callable.
    """
    global ENC_MODE
    ENC_MODE = _mode(enc_mode, "enc_mode")


def set_dec_mode(dec_mode="AES-GCM"):
    """Set the decryption mode: ``"AES-GCM"``, a function ``f(in_file, file_size, out_file, key)``, or ``None``
    (use the encryption mode).

    Raises:
        ValueError: `dec_mode` is neither a supported mode, callable, nor None.
    """
    global DEC_MODE
    DEC_MODE = None if dec_mode is None else _mode(dec_mode, "dec_mode")


def _get_enc_key():
    return ENC_KEY


def _get_enc_mode():
    return ENC_MODE


def _get_dec_mode():
    if DEC_MODE is None:
        if callable(ENC_MODE):
            raise RuntimeError("You use custom encryption, so you must also define custom decryption.")
        return ENC_MODE
    return DEC_MODE


def _mode_tag(mode):
    return b"UDF-ENC" if callable(mode) else mode.encode()


def _aesgcm(key):
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise RuntimeError("MindRecord encryption needs the 'cryptography' package (pip install cryptography).") \
            from None
    return AESGCM(key)


def encrypt_piece(data, key):
    """One piece in MindSpore's AES-GCM layout (see the module docstring)."""
    iv = os.urandom(16)
    sealed = _aesgcm(key).encrypt(iv[:12], data, None)
    cipher, tag = sealed[:-16], sealed[-16:]
    return (struct.pack("<I", _GCM_MAGIC) + tag + struct.pack("<ii", 24 + len(cipher), 16) + iv
            + struct.pack("<i", len(cipher)) + cipher)


def decrypt_piece(data, key, where):
    """The plaintext of `encrypt_piece`'s output; RuntimeError naming `where` when it does not decrypt."""
    bad = RuntimeError(f"Failed to decrypt data of {where}, please check if enc_key and enc_mode / dec_mode is "
                       f"valid.")
    if len(data) < 48 or struct.unpack_from("<I", data, 0)[0] != _GCM_MAGIC:
        raise bad
    tag = data[4:20]
    n, iv_len = struct.unpack_from("<ii", data, 20)
    if iv_len != 16 or n != len(data) - 24 or struct.unpack_from("<i", data, 44)[0] != len(data) - 48:
        raise bad
    from cryptography.exceptions import InvalidTag
    try:
        return _aesgcm(key).decrypt(data[28:40], data[48:] + tag, None)
    except InvalidTag:
        raise bad from None


def encrypt(filename, enc_key, enc_mode):
    """Encrypt `filename` in place (MindSpore's layout)."""
    if not os.path.isfile(filename):
        raise RuntimeError(f"The input: {filename} is not exists or is not a regular file.")
    key = enc_key.encode() if isinstance(enc_key, str) else enc_key
    out = filename + ".encrypt"
    try:
        with open(filename, "rb") as f, open(out, "wb") as g:
            if callable(enc_mode):
                enc_mode(f, os.path.getsize(filename), g, enc_key)
            else:
                for piece in iter(lambda: f.read(_PIECE), b""):
                    sealed = encrypt_piece(piece, key)
                    g.write(struct.pack(">i", len(sealed)))
                    g.write(sealed)
            g.write(struct.pack(">i", 0) + _mode_tag(enc_mode) + ENCRYPT_END_FLAG)
    except BaseException:
        if os.path.exists(out):
            os.remove(out)
        raise
    os.chmod(out, stat.S_IRUSR | stat.S_IWUSR)
    shutil.move(out, filename)


def is_encrypted(filename):
    """Whether `filename` ends with MindSpore's encryption trailer."""
    size = os.path.getsize(filename)
    if size < len(ENCRYPT_END_FLAG) + 11:
        return False
    with open(filename, "rb") as f:
        f.seek(size - len(ENCRYPT_END_FLAG))
        return f.read() == ENCRYPT_END_FLAG


def _decrypt_to(filename, dest, key, dec_mode):
    size = os.path.getsize(filename) - len(ENCRYPT_END_FLAG)
    with open(filename, "rb") as f:
        f.seek(size - 7)
        if f.read(7) != _mode_tag(dec_mode):
            raise RuntimeError(f"Failed to decrypt data of {filename}, please check if enc_key and enc_mode / "
                               f"dec_mode is valid.")
        f.seek(0)
        with open(dest, "wb") as g:
            if callable(dec_mode):
                dec_mode(f, size, g, ENC_KEY)
                return
            pos = 0
            while True:
                head = f.read(4)
                if len(head) < 4:
                    raise RuntimeError(f"Invalid encrypted MindRecord file {filename}: it is truncated at offset "
                                       f"{pos}.")
                (n,) = struct.unpack(">i", head)
                if n == 0:
                    return
                if n < 0 or pos + 4 + n > size - 11:
                    raise RuntimeError(f"Invalid encrypted block length {n} in file: {filename} at offset: {pos}.")
                g.write(decrypt_piece(f.read(n), key, f"{filename} at offset {pos}"))
                pos += 4 + n


def decrypted_copies(paths, folder=None):
    """(paths to read, temporary folder or None): each shard file and its .db decrypted into one private folder
    (`folder`, or a new one; same base names, so a header's shard list still resolves) when a key is set; the
    paths unchanged otherwise.

    Raises:
        RuntimeError: a key is set and a file is not encrypted, a file is encrypted and no key is set, or the
            key / mode does not decrypt it.
    """
    if ENC_KEY is None:
        for p in paths:
            if os.path.isfile(p) and is_encrypted(p):
                raise RuntimeError(f"The mindrecord file {p} is encrypted. You need to configure "
                                   f"'mindspore.mindrecord.config.set_enc_key(...)' and "
                                   f"'mindspore.mindrecord.config.set_enc_mode(...)' for decryption.")
        return list(paths), None
    new = folder is None
    if new:
        folder = tempfile.mkdtemp(prefix="mindseed_decrypt_")
        os.chmod(folder, stat.S_IRWXU)
    out = []
    try:
        for p in paths:
            for src in (p, p + ".db"):
                if not os.path.isfile(src):
                    raise RuntimeError(f"Invalid file, MindRecord file {src} does not exist.")
                if os.path.getsize(src) < _MIN_FILE_SIZE and not is_encrypted(src):
                    raise RuntimeError(f"Invalid file, the size of mindrecord file {src}: {os.path.getsize(src)} "
                                       f"is smaller than the lower limit: {_MIN_FILE_SIZE}.")
                if not is_encrypted(src):
                    raise RuntimeError(f"The mindrecord file {src} is not encrypted. You can set "
                                       f"'mindspore.mindrecord.config.set_enc_key(None)' to disable the decryption.")
                _decrypt_to(src, os.path.join(folder, os.path.basename(src)), ENC_KEY.encode(), _get_dec_mode())
            out.append(os.path.join(folder, os.path.basename(p)))
    except BaseException:
        if new:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return out, folder


def encrypt_written(paths):
    """Encrypt freshly written shard files and their .db indexes when a key is set."""
    if ENC_KEY is None:
        return
    for p in paths:
        encrypt(p, ENC_KEY, ENC_MODE)
        encrypt(p + ".db", ENC_KEY, ENC_MODE)
