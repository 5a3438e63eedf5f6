# /etc/varnish/gpuguide-backends.vcl, included by deploy/varnish.vcl: the app servers, the
# director that spreads requests over them and who may purge. The two-server layout of
# docs/operations.md; `scripts/stack.py` writes its own for `make stack`.

backend app1 {
    .host = "10.0.0.11";
    .port = "8000";
    .probe = app_ready;
    .first_byte_timeout = 35s;  # above gunicorn's timeout (deploy/gunicorn.conf.py)
}

backend app2 {
    .host = "10.0.0.12";
    .port = "8000";
    .probe = app_ready;
    .first_byte_timeout = 35s;
}

# The same servers for the routes that compute on every request (the API, the planner asked
# something; deploy/varnish.vcl's vcl_recv): at most 2 of each server's 4 workers at once
# (`.max_connections`, about half of GUNICORN_WORKERS x GUNICORN_THREADS), so that the others
# always serve the pages and the admin; beyond it Varnish answers 503 with Retry-After.
backend app1_compute {
    .host = "10.0.0.11";
    .port = "8000";
    .probe = app_ready;
    .first_byte_timeout = 35s;
    .max_connections = 2;
}

backend app2_compute {
    .host = "10.0.0.12";
    .port = "8000";
    .probe = app_ready;
    .first_byte_timeout = 35s;
    .max_connections = 2;
}

sub vcl_init {
    new app = directors.round_robin();
    app.add_backend(app1);
    app.add_backend(app2);
    new compute = directors.round_robin();
    compute.add_backend(app1_compute);
    compute.add_backend(app2_compute);
}

# The task workers that send PURGE (the app servers' addresses, where db_worker runs).
acl purgers {
    "127.0.0.1";
    "10.0.0.11";
    "10.0.0.12";
}
