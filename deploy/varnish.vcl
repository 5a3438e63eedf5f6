vcl 4.1;

# GPU Guide behind Varnish 7 (Debian: apt-get install varnish varnish-modules).
#
# The app decides what Varnish may keep: a public page it serves from its own page cache
# carries its cache tags (`xkey: guide:1 prices:2 site`) and its life (`Surrogate-Control:
# max-age=N`, until the next local midnight, when "today" moves on). Nothing else is kept:
# staff, previews, the admin, the planner's answers, the API and pages asked for with a query
# parameter the page does not read all reach the app. After each write commits, the app's task
# worker sends `PURGE` with `xkey-purge: <the write's tags>`, which drops exactly the pages
# that read that data (gpuguide/lib/front_cache.py). See docs/operations.md, "Varnish in front".
#
# The backends, their director and who may purge live in a file of their own, written per
# machine (`scripts/stack.py` writes one; deploy/backends.example.vcl is the shape):
# varnishd -f /etc/varnish/gpuguide.vcl -p vcl_path=/etc/varnish ...

import directors;
import std;
import xkey;

probe app_ready {
    .url = "/healthz";
    .interval = 2s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;  # healthy from the start: a restarted Varnish serves at once
}

# Defines the backends (with `.probe = app_ready`), `sub vcl_init` adding them to a director
# named `app`, the same servers again with `.max_connections` in a director named `compute`,
# and `acl purgers`.
include "gpuguide-backends.vcl";

sub vcl_recv {
    # The routes that compute on every request (the API, the planner asked something: the
    # routes of gpuguide/lib/rate_limits.py's _limited) reach the app through `compute`, whose
    # connections per server are capped: beyond the cap Varnish answers 503 at once
    # (vcl_backend_error), and the rest of each server's workers stay free for the pages and
    # the admin, however many clients share the load.
    if (req.url ~ "^/(api/|[a-z]{2}/vram/\?.)") {
        set req.backend_hint = compute.backend();
    } else {
        set req.backend_hint = app.backend();
    }
    # One id for Varnish's log line and the app's (the app believes it from TRUSTED_PROXIES).
    # Always Varnish's own: Varnish is the edge, so an X-Request-ID here is a visitor's, which
    # would reach the logs and come back in the answer as the visitor wrote it.
    set req.http.X-Request-ID = "varnish-" + req.xid;
    # Whether the client takes gzip, by Varnish's own reading of Accept-Encoding (set whatever
    # the client sent): a page is kept twice, gzipped and plain (vcl_hash, vcl_backend_fetch).
    set req.http.X-Gzip = req.can_gzip;
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Not allowed to purge"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "PURGE needs an xkey-purge header"));
        }
        set req.http.X-Purged = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged " + req.http.X-Purged + " objects"));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Signed-in staff (drafts, previews: "private, no-store") and authorised requests
    # (/metrics) always reach the app. The session cookie's name is SESSION_COOKIE_NAME's.
    if (req.http.Cookie ~ "(^|;\s*)sessionid=" || req.http.Authorization) {
        return (pass);
    }
    # The app keys its pages on the query parameters in any order: so does this cache. Other
    # cookies stay on the request (the language choice at /, the CSRF cookie of a form) and
    # out of the key: a page the app lets Varnish keep reads none of them.
    set req.url = std.querysort(req.url);
    set req.url = regsub(req.url, "\?$", "");
    return (hash);
}

sub vcl_hash {
    # One copy for the clients that take gzip, one for the others: Varnish's gzip support
    # would serve one copy to both, whatever the app's `Vary: Accept-Encoding` says. The
    # builtin vcl_hash then adds the URL and the host.
    hash_data(req.http.X-Gzip);
}

sub vcl_backend_fetch {
    # Varnish asks the app for gzip on every fetch, and would gunzip that copy again for each
    # client that takes none (4-6x fewer hits a second); the plain copy is fetched, kept and
    # sent as the app serves it. Both copies keep the app's `Vary: Accept-Encoding` and their
    # xkey tags: a purge drops both.
    if (bereq.http.X-Gzip == "false") {
        unset bereq.http.Accept-Encoding;
    }
    unset bereq.http.X-Gzip;
}

sub vcl_backend_response {
    if (beresp.status == 200 && beresp.http.xkey
            && beresp.http.Surrogate-Control ~ "max-age=[0-9]+"
            && !beresp.http.Set-Cookie) {
        set beresp.ttl = std.duration(
            regsub(beresp.http.Surrogate-Control, "^.*max-age=([0-9]+).*$", "\1s"), 0s);
        # No grace: once purged or past midnight, a page is fetched again before anyone sees
        # it; an older copy is never served while a newer one exists.
        set beresp.grace = 0s;
        unset beresp.http.Surrogate-Control;
        return (deliver);
    }
    if (bereq.url ~ "^/static/") {
        return (deliver);  # WhiteNoise's Cache-Control (a year for hashed names)
    }
    # Anything else is not kept; later requests for it skip the queue for a copy (hit-for-miss)
    # and may still be kept if the app lets them.
    set beresp.ttl = 60s;
    set beresp.uncacheable = true;
    return (deliver);
}

sub vcl_deliver {
    # The tags are for purges, not for visitors; the request id is this request's, not the one
    # that fetched the copy.
    unset resp.http.xkey;
    unset resp.http.Server;  # which application server answers is nobody's business
    unset resp.http.Via;  # nor which cache, and its version ("1.1 varnish (Varnish/7.1)")
    set resp.http.X-Request-ID = req.http.X-Request-ID;
    if (obj.uncacheable) {
        set resp.http.X-Cache = "pass";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "hit";
    } else {
        set resp.http.X-Cache = "miss";
    }
}

sub vcl_backend_error {
    # Varnish's own answer when no app server answered: all down, or the computing routes'
    # connections all taken. Short and ours (no "Guru Meditation", no Varnish version), never
    # kept, with a time to come back.
    set beresp.reason = "Service Unavailable";  # not "Backend fetch failed"
    set beresp.http.Retry-After = "5";
    set beresp.http.Cache-Control = "no-store";
    set beresp.ttl = 0s;
    if (bereq.url ~ "^/api/") {
        set beresp.http.Content-Type = "application/json";
        # The space before the end: ."} would end the {"..."} string.
        set beresp.body = {"{"detail": "Busy or unavailable. Try again in 5 s." }"};
    } else {
        set beresp.http.Content-Type = "text/html; charset=utf-8";
        set beresp.body = {"<!DOCTYPE html>
<html lang="en"><meta charset="utf-8"><meta name="robots" content="noindex">
<title>Temporarily unavailable · GPU Guide</title>
<h1>GPU Guide: temporarily unavailable</h1>
<p>The GPU Guide is busy or cannot answer right now. Please try again in a few seconds.</p>
<p><a href="/">GPU Guide home page</a></p>
</html>
"};
    }
    return (deliver);
}

sub vcl_synth {
    unset resp.http.Server;  # "Varnish", on the answers to PURGE (a 403 to anyone else)
    set resp.http.Content-Type = "text/plain; charset=utf-8";
    set resp.body = resp.reason + {"
"};
    return (deliver);
}
