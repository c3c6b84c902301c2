"""The app's services, and the dependencies that hand them to its routes.

``create_app`` builds them once per app and keeps them on ``app.state.services``; nothing of an app's lives in
a module, as one process may hold several apps (the tests make many). A route takes what it needs as a
parameter, e.g. ``history: HistoryDep``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from calibration.statedir import StateDir
from device.history import History
from device.inbox import Inbox
from device.mqtt.link import BrokerLink
from device.web.auth import Attempts, Devices, PairingCode, PlayerIds
from device.web.gamesetup import SetupStore
from device.web.reading import Reader
from device.web.results import ResultStore
from device.web.reteach import Reteacher
from device.web.uploads import UploadStore


@dataclass(frozen=True)
class Services:
    """One of each per app, shared by its requests."""

    state: StateDir
    history: History
    results: ResultStore
    setup: SetupStore
    reader: Reader
    players: PlayerIds
    reteacher: Reteacher
    """Its lock also keeps the calibration page's heavy steps to one at a time."""
    inbox: Inbox
    uploads: UploadStore
    devices: Devices
    attempts: Attempts
    pairing_code: PairingCode
    kiosk_token: str
    broker: BrokerLink | None = None
    """The table's tie to an MQTT broker (None: an app that may not have one, as the tests' apps)."""
    on_network: bool = True
    """Whether phones on the network can reach the app (it listens beyond this machine)."""


async def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


ServicesDep = Annotated[Services, Depends(services)]


async def state(services: ServicesDep) -> StateDir:
    return services.state


async def history(services: ServicesDep) -> History:
    return services.history


async def results(services: ServicesDep) -> ResultStore:
    return services.results


async def setup(services: ServicesDep) -> SetupStore:
    return services.setup


async def reader(services: ServicesDep) -> Reader:
    return services.reader


async def players(services: ServicesDep) -> PlayerIds:
    return services.players


async def reteacher(services: ServicesDep) -> Reteacher:
    return services.reteacher


async def inbox(services: ServicesDep) -> Inbox:
    return services.inbox


async def uploads(services: ServicesDep) -> UploadStore:
    return services.uploads


async def devices(services: ServicesDep) -> Devices:
    return services.devices


async def attempts(services: ServicesDep) -> Attempts:
    return services.attempts


async def pairing_code(services: ServicesDep) -> PairingCode:
    return services.pairing_code


async def kiosk_token(services: ServicesDep) -> str:
    return services.kiosk_token


async def broker(services: ServicesDep) -> BrokerLink | None:
    return services.broker


async def on_network(services: ServicesDep) -> bool:
    return services.on_network


async def max_upload_bytes(request: Request) -> int:
    """The largest request body accepted (kept on ``app.state`` for bodies.Guarded, which checks it)."""
    limit: int = request.app.state.max_upload_bytes
    return limit


StateDep = Annotated[StateDir, Depends(state)]
HistoryDep = Annotated[History, Depends(history)]
ResultsDep = Annotated[ResultStore, Depends(results)]
SetupDep = Annotated[SetupStore, Depends(setup)]
ReaderDep = Annotated[Reader, Depends(reader)]
PlayersDep = Annotated[PlayerIds, Depends(players)]
ReteacherDep = Annotated[Reteacher, Depends(reteacher)]
InboxDep = Annotated[Inbox, Depends(inbox)]
UploadsDep = Annotated[UploadStore, Depends(uploads)]
DevicesDep = Annotated[Devices, Depends(devices)]
AttemptsDep = Annotated[Attempts, Depends(attempts)]
PairingCodeDep = Annotated[PairingCode, Depends(pairing_code)]
KioskTokenDep = Annotated[str, Depends(kiosk_token)]
MaxUploadBytesDep = Annotated[int, Depends(max_upload_bytes)]
BrokerDep = Annotated[BrokerLink | None, Depends(broker)]
OnNetworkDep = Annotated[bool, Depends(on_network)]
