"""What the app's pages share: the frame (navigation, layout) and small view helpers. Not pages themselves."""
