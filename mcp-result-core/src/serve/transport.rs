//! A transport that hands every request the served instance's [`State`].

use rmcp::{
    model::{GetExtensions as _, JsonRpcMessage},
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
    RoleServer,
};

use crate::state::State;

/// `inner`, with `state` put into the extensions of every request it receives, where
/// [`State::of`] finds it.
pub(crate) struct WithState<T> {
    pub(crate) inner: T,
    pub(crate) state: State,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for WithState<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.inner.receive().await?;
        if let JsonRpcMessage::Request(request) = &mut message {
            request.request.extensions_mut().insert(self.state.clone());
        }
        Some(message)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}
