#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>

/* The header list of a request is a TAILQ (keyvalq_struct.h), walked here so that Swift needs no field names of it: the
   first entry and the next one, as functions. */
static inline struct evkeyval *pins_headers_first(struct evkeyvalq *headers) {
    return headers ? headers->tqh_first : 0;
}
static inline struct evkeyval *pins_headers_next(struct evkeyval *header) {
    return header->next.tqe_next;
}
