/* pipeline/status.c — text for each gp_status code. */
#include "pipeline/status.h"

const char *gp_strerror(gp_status s)
{
    switch (s) {
    case GP_OK: return "success";
    case GP_EINVAL: return "invalid argument";
    case GP_EIO: return "input/output error";
    case GP_EFORMAT: return "unsupported file or dataset";
    case GP_ENOMEM: return "out of memory";
    case GP_EMPI: return "MPI error";
    case GP_ENODEV: return "no usable GPU";
    case GP_EDEVICE: return "GPU error";
    case GP_EEXIST: return "output exists";
    case GP_EINTERNAL: return "internal error";
    case GP_EINTR: return "interrupted";
    default: return "unknown error";
    }
}
