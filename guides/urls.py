from django.urls import path

from guides import views

app_name = "guides"

urlpatterns = [
    path("", views.index, name="index"),
    path("guides/<slug:slug>/", views.guide_detail, name="detail"),
    path("gpus/", views.gpu_list, name="gpus"),
    path("vram/", views.vram, name="vram"),
    path("compare/<slug:first>-vs-<slug:second>/", views.compare, name="compare"),
]
