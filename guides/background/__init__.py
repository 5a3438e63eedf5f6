"""What runs outside requests: the background tasks (``tasks``: re-renders, front-cache purges,
share images, review mails, schedules) and the signals that ask for them (``signals``), the
worker behind ``manage.py db_worker`` (``worker``) and the queue's health (``task_queue``: stuck
tasks failed, failures summed up for the dashboard and /metrics).

Public views may ask for work only through ``signals`` (they import nothing of the write side);
the task names are ``guides.background.tasks.<name>`` in the queue's rows."""
