"""More query fields than DATA_UPLOAD_MAX_NUMBER_FIELDS: a 400, under DEBUG as without it
(gpuguide/lib/query_fields.py). Before, under DEBUG, Django's technical 400 page read the query
again in every middleware's handler: 23 s, then the error escaped as a 500."""

import pytest

TOO_MANY = "/en/vram/?" + "&" * 1100 + "model=llama-3.1-8b&method=qlora"


@pytest.mark.parametrize("debug", [False, True])
def test_a_query_of_too_many_fields_is_refused_with_400(client, settings, debug):
    settings.DEBUG = debug
    answer = client.get(TOO_MANY)
    assert answer.status_code == 400
    assert answer["X-Request-ID"]
    if debug:  # Django's page names the refusal and shows the query as empty
        assert b"TooManyFieldsSent" in answer.content
        assert b"No GET data" in answer.content
    else:
        assert b"<h1>Bad Request (400)</h1>" in answer.content


@pytest.mark.django_db
def test_a_query_of_as_many_fields_as_django_takes_is_answered(client):
    at_the_limit = "/en/vram/?" + "&" * 998 + "model=llama-3.1-8b"  # 1,000 fields
    assert client.get(at_the_limit).status_code == 200
