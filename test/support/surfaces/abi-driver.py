"""Drives libsvc_ffi through ctypes for the shared admin cases: one handle, one call per stdin line.

A line is JSON {"fn": "svc_...", "args": [...]} (the handle is implied); the answer is one JSON line
{"ret": value, "error": last error or null}. String results are declared c_void_p so svc_free gets
the very pointer the library returned.
"""
import ctypes
import json
import sys

lib = ctypes.CDLL(sys.argv[1])
P, S, U16, I32 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint16, ctypes.c_int32

# name: (result kind, argument types after the handle)
SIGNATURES = {
    "svc_create_imposter": ("u16", [S]),
    "svc_delete_imposter": ("int", [U16]),
    "svc_delete_all": ("int", []),
    "svc_replace_stubs": ("int", [U16, S]),
    "svc_recorded": ("str", [U16]),
    "svc_verify": ("str", [U16, S]),
    "svc_list_imposters": ("str", [S]),
    "svc_get_imposter": ("str", [U16, S]),
    "svc_add_stub": ("int", [U16, S, I32]),
    "svc_get_stub": ("str", [U16, S]),
    "svc_update_stub": ("int", [U16, S, S]),
    "svc_delete_stub": ("int", [U16, S]),
    "svc_clear_recorded": ("int", [U16]),
    "svc_set_imposter_enabled": ("int", [U16, I32]),
    "svc_scenarios": ("str", [U16, S]),
    "svc_set_scenario_state": ("int", [U16, S, S]),
    "svc_reset_scenarios": ("int", [U16, S]),
    "svc_flow_state_get": ("str", [U16, S, S]),
    "svc_flow_state_put": ("int", [U16, S, S, S]),
    "svc_flow_state_delete": ("int", [U16, S, S]),
    "svc_apply_config": ("str", [S]),
    "svc_stub_warnings": ("str", [U16]),
    "svc_space_add_stub": ("int", [U16, S, S]),
    "svc_space_list_stubs": ("str", [U16, S]),
    "svc_space_delete": ("int", [U16, S]),
    "svc_serve_admin": ("str", [S]),
}
RESULT = {"u16": U16, "int": I32, "str": P}

lib.svc_start.restype = P
lib.svc_stop.argtypes = [P]
lib.svc_last_error.restype = P
lib.svc_free.argtypes = [P]
for name, (kind, args) in SIGNATURES.items():
    fn = getattr(lib, name)
    fn.restype = RESULT[kind]
    fn.argtypes = [P] + args


def take(pointer):
    """The text at a returned pointer, freed; None for NULL."""
    if not pointer:
        return None
    text = ctypes.string_at(pointer).decode("utf-8")
    lib.svc_free(pointer)
    return text


def encode(value):
    return value.encode("utf-8") if isinstance(value, str) else value


handle = lib.svc_start()
if not handle:
    print(json.dumps({"ret": None, "error": take(lib.svc_last_error())}), flush=True)
    sys.exit(1)
print(json.dumps({"ret": "started", "error": None}), flush=True)
try:
    for line in sys.stdin:
        call = json.loads(line)
        kind, _ = SIGNATURES[call["fn"]]
        result = getattr(lib, call["fn"])(handle, *[encode(a) for a in call["args"]])
        # Read the last error right after the call, before anything else can clear it.
        error = take(lib.svc_last_error())
        ret = take(result) if kind == "str" else result
        print(json.dumps({"ret": ret, "error": error}), flush=True)
finally:
    lib.svc_stop(handle)
