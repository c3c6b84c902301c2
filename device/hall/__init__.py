"""The hall: every table on the MQTT broker on one big screen, with the evening's standings (issue #63).

``store`` keeps what the hall hears in its own SQLite file (a restarted hall shows the evening so far);
``listen`` is its MQTT client and what it does with each message; ``feed`` tells each screen following what
changed; ``app`` is the page, its JSON and its event stream, and :func:`device.hall.app.run_hall` runs it all.
It reads the broker and never publishes. Like the scorer's client, it needs the ``mqtt`` extra (paho-mqtt),
imported only when the listener is made.
"""
