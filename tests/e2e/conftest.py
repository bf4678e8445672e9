"""End-to-end tests: the release binary driven by a real LSP client library
(pytest-lsp / pygls). The binary is PERMISSION_LSP_BIN or target/release."""

import os
import pathlib

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("PERMISSION_LSP_BIN", str(ROOT / "target" / "release" / "permission-lsp"))


def _config():
    return ClientServerConfig(server_command=[BIN, "serve"])


@pytest_lsp.fixture(config=_config())
async def client(lsp_client: LanguageClient):
    """A session that negotiates UTF-16 (no positionEncodings offered)."""
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=ROOT.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=_config())
async def client_utf8(lsp_client: LanguageClient):
    """A session that offers UTF-8 positions."""
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]
        )
    )
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=caps))
    lsp_client.negotiated_encoding = result.capabilities.position_encoding
    yield
    await lsp_client.shutdown_session()
