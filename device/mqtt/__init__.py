"""Many tables, one hall: the scorer on an MQTT broker, as Frigate and Zigbee2MQTT are.

``topics`` is the contract every side shares (topic names, the messages' JSON, Home Assistant's discovery
configs); ``settings`` reads ``--mqtt`` and its password; ``outbox`` keeps what is not yet sent on disk;
``publisher`` is the scorer's client. Only this package and the hall import the client library (paho-mqtt, the
``mqtt`` extra): a scorer with no broker configured never loads it.
"""
