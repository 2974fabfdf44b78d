// The HTML replay: tools/viewer/viewer.html (compiled in) with the recording embedded as base64,
// so the page needs no network and no other file.
#include <string.h>

#include "cli.h"

extern const unsigned char crowd_viewer_html[];
extern const size_t crowd_viewer_html_len;

static bool write_base64(FILE* f, const uint8_t* d, size_t len) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char buf[4096];
    size_t n = 0;
    for (size_t i = 0; i < len; i += 3) {
        const uint32_t b0 = d[i], b1 = i + 1 < len ? d[i + 1] : 0, b2 = i + 2 < len ? d[i + 2] : 0;
        const uint32_t v = b0 << 16 | b1 << 8 | b2;
        buf[n++] = abc[v >> 18 & 63];
        buf[n++] = abc[v >> 12 & 63];
        buf[n++] = i + 1 < len ? abc[v >> 6 & 63] : '=';
        buf[n++] = i + 2 < len ? abc[v & 63] : '=';
        if (n == sizeof buf) {
            if (fwrite(buf, 1, n, f) != n) return false;
            n = 0;
        }
    }
    return fwrite(buf, 1, n, f) == n;
}

static bool write_escaped(FILE* f, const char* s) {
    for (; *s; ++s) {
        const char* e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : NULL;
        if (e ? fputs(e, f) < 0 : fputc(*s, f) == EOF) return false;
    }
    return true;
}

bool viewer_write_html(FILE* f, const uint8_t* rec, size_t len, const char* title) {
    static const char title_mark[] = "@@TITLE@@", data_mark[] = "@@RECORDING_BASE64@@";
    const char* html = (const char*)crowd_viewer_html;
    const char* t = strstr(html, title_mark);
    const char* d = strstr(html, data_mark);
    if (!t || !d || d < t) return false;
    const char* after_t = t + strlen(title_mark);
    const char* after_d = d + strlen(data_mark);
    return fwrite(html, 1, (size_t)(t - html), f) == (size_t)(t - html) &&
           write_escaped(f, title) &&
           fwrite(after_t, 1, (size_t)(d - after_t), f) == (size_t)(d - after_t) &&
           write_base64(f, rec, len) &&
           fwrite(after_d, 1, crowd_viewer_html_len - (size_t)(after_d - html), f) ==
               crowd_viewer_html_len - (size_t)(after_d - html);
}
