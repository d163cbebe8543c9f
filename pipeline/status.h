/* pipeline/status.h — status codes shared by every module (0 ok, negative error). */
#ifndef GP_STATUS_H
#define GP_STATUS_H
typedef int gp_status;
enum {
    GP_OK = 0,
    GP_EINVAL = -1,   /* bad option value or argument */
    GP_EIO = -2,      /* file cannot be read or written */
    GP_EFORMAT = -3,  /* file or dataset is not what gpipe can process */
    GP_ENOMEM = -4,   /* allocation failed or budget too small */
    GP_EMPI = -5,     /* MPI call failed */
    GP_ENODEV = -6,   /* no usable GPU */
    GP_EDEVICE = -7,  /* GPU call failed */
    GP_EEXIST = -8,   /* output exists (no --force) */
    GP_EINTERNAL = -9, /* a bug: please report */
    GP_EINTR = -10     /* stopped by a signal (SIGTERM, SIGINT, SIGUSR1) */
};
#ifdef __cplusplus
extern "C" {
#endif
const char *gp_strerror(gp_status s);
#ifdef __cplusplus
}
#endif
#endif
