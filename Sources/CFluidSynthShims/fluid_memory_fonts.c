#define _GNU_SOURCE
#include "CFluidSynthShims.h"
#include <fluidsynth.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>

/* A name of this form stands for bytes in memory: "pianola-memory:<address>:<length>". */
static const char prefix[] = "pianola-memory:";

/* SoundFont reads made on this thread. */
static _Thread_local long reads;

long shim_fluid_font_reads(void) { return reads; }

static void *open_font(const char *name) {
    if (strncmp(name, prefix, sizeof prefix - 1) == 0) {
        void *bytes = NULL;
        size_t length = 0;
        if (sscanf(name + sizeof prefix - 1, "%p:%zu", &bytes, &length) != 2 || bytes == NULL || length == 0) return NULL;
        return fmemopen(bytes, length, "rb");
    }
    return fopen(name, "rb");
}

static int read_font(void *buffer, fluid_long_long_t count, void *file) {
    reads++;
    if (count < 0) return FLUID_FAILED;
    return fread(buffer, 1, (size_t)count, file) == (size_t)count ? FLUID_OK : FLUID_FAILED;
}

static int seek_font(void *file, fluid_long_long_t offset, int origin) {
    return fseeko(file, (off_t)offset, origin) == 0 ? FLUID_OK : FLUID_FAILED;
}

static fluid_long_long_t tell_font(void *file) {
    off_t at = ftello(file);
    return at < 0 ? FLUID_FAILED : (fluid_long_long_t)at;
}

static int close_font(void *file) {
    return fclose(file) == 0 ? FLUID_OK : FLUID_FAILED;
}

int shim_fluid_add_memory_loader(fluid_synth_t *synth, fluid_settings_t *settings) {
    fluid_sfloader_t *loader = new_fluid_defsfloader(settings);
    if (loader == NULL) return -1;
    if (fluid_sfloader_set_callbacks(loader, open_font, read_font, seek_font, tell_font, close_font) != FLUID_OK) {
        delete_fluid_sfloader(loader);
        return -1;
    }
    fluid_synth_add_sfloader(synth, loader);
    return 0;
}

void shim_fluid_memory_name(char *buffer, size_t size, const void *bytes, size_t length) {
    snprintf(buffer, size, "%s%p:%zu", prefix, bytes, length);
}

int shim_memory_file(const char *name, const void *bytes, size_t length) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t written = 0;
    while (written < length) {
        ssize_t n = write(fd, (const char *)bytes + written, length - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        written += (size_t)n;
    }
    return fd;
}
