from django.urls import path
from django.views.decorators.http import require_safe

from guides import feeds, views

app_name = "guides"

urlpatterns = [
    path("", views.index, name="index"),
    path("guides/<slug:slug>/", views.guide_detail, name="detail"),
    path("guides/<slug:slug>/tutorial/", views.tutorial, name="tutorial"),
    path("guides/<slug:slug>/share.png", views.share_image, name="share_image"),
    path("gpus/", views.gpu_list, name="gpus"),
    path("gpus/<slug:gpu>/lines.svg", views.gpu_lines, name="gpu_lines"),
    path("gpus/<slug:gpu>/prices.csv", views.gpu_price_history, name="gpu_price_history"),
    path("vram/", views.vram, name="vram"),
    path("serving/", views.serving, name="serving"),
    # Model slugs hold dots (llama-3.1-70b): not a slug converter.
    path("serving/<str:model>/", views.serving_for_model, name="serving_for_model"),
    path("compare/<slug:first>-vs-<slug:second>/", views.compare, name="compare"),
    path("legal/<slug:kind>/", views.legal, name="legal"),
    path("feeds/guides.xml", require_safe(feeds.GuideFeed()), name="guide_feed"),
    path("feeds/prices/<slug:gpu>.xml", require_safe(feeds.PriceFeed()), name="price_feed"),
]
