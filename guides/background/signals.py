"""What a public request asks the task worker for, without writing anything itself: the public
views send these, ``guides.background.tasks`` listens and queues the work."""

from django.dispatch import Signal

# A visitor asked for a published guide's share image that is not drawn yet (published while
# no task worker ran): kwargs ``guide_id``, ``language``. The page is served the site-wide image
# meanwhile.
share_image_missing = Signal()
